$ qalter -w v 52
