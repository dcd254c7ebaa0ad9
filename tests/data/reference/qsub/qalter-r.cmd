$ qalter -r y 291
