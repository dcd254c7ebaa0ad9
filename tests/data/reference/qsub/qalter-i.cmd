$ qalter -i /tmp/i 291
