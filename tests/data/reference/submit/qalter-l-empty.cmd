$ qalter -l '' 263
