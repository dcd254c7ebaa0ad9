$ qalter -w v 53
