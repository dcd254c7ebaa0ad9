$ qacct -j 48
