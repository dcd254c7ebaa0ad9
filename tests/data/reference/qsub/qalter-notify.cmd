$ qalter -notify 291
