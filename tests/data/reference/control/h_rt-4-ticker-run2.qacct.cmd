$ qacct -j 85
