$ qacct -j 4
