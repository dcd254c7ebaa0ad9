$ qacct -j 83
