$ qacct -j 35
