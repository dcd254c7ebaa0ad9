$ qalter -w n -N qa 36
