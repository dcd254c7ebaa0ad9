$ qacct -j 72
