$ qalter -w e -N later2 53
