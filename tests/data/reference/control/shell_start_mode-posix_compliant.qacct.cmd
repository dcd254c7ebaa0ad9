$ qacct -j 64
