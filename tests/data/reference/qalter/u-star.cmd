$ qalter -u sgeuser -p -5 *
