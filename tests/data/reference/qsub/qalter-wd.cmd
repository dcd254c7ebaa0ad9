$ qalter -wd /tmp 291
