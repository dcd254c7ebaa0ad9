$ qalter -j y 291
