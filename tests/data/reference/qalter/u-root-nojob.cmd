$ qalter -u * -N byroot2
