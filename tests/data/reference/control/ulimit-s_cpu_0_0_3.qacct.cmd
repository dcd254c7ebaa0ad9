$ qacct -j 18
