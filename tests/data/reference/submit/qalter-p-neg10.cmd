$ qalter -p -10 263
