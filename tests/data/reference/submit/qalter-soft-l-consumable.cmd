$ qalter -soft -l cint=1 263
