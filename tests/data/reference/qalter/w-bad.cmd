$ qalter -w x -N qa 36
