$ qalter -u sgeuser -p -6
