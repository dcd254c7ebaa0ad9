$ qalter -M x@y 291
