$ qalter -c s 36
