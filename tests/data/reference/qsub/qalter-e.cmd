$ qalter -e /tmp/e 291
