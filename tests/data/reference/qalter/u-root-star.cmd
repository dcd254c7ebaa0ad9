$ qalter -u sgeuser -N byroot *
