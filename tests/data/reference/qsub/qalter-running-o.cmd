$ qalter -o /tmp/o2 299
