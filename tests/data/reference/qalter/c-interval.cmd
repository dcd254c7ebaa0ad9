$ qalter -c 00:10:00 36
