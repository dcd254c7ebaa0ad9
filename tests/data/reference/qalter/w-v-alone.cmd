$ qalter -w v 36
