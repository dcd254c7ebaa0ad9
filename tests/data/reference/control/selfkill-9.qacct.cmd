$ qacct -j 12
