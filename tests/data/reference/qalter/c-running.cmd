$ qalter -c m 37
