$ qacct -P p1
