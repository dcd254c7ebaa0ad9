$ qalter -m be 291
