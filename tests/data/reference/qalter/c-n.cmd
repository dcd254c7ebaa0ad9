$ qalter -c n 36
