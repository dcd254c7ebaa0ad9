$ qalter -w v 116
