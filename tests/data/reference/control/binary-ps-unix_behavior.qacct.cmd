$ qacct -j 80
