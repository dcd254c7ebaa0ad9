$ qalter -w e -N norun2 52
