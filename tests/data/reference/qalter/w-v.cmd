$ qalter -w v -N never 36
