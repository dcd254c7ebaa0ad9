$ qalter -c sx 36
