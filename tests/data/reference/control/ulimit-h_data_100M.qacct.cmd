$ qacct -j 20
