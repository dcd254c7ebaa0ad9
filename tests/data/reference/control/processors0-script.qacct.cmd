$ qacct -j 76
