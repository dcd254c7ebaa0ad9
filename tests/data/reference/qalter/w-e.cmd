$ qalter -w e -N qa2 36
