$ qalter -l cint=-1 263
