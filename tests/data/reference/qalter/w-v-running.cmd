$ qalter -w v 37
