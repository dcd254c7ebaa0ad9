$ qalter -P p1 103
