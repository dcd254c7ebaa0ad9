$ qacct -j 23
