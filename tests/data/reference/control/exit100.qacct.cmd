$ qacct -j 37
