$ qacct -j 77
