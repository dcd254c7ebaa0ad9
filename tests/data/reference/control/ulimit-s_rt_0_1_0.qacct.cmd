$ qacct -j 24
