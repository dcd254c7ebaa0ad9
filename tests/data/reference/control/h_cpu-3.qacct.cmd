$ qacct -j 8
