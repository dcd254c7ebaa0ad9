$ qalter -v X=1 291
