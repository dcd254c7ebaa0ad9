$ qacct -j 2
