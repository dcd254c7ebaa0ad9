$ qalter -u
