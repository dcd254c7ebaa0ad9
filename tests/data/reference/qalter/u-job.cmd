$ qalter -u sgeuser -p -7 36
