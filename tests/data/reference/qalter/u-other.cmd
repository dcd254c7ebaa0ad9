$ qalter -u nosuchuser -p -8
