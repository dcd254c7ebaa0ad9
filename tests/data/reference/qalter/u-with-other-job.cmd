$ qalter -u nosuchuser -p -9 53
