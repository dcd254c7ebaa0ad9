$ qalter -o /tmp/o 291
