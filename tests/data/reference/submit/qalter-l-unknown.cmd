$ qalter -l foo=1 263
