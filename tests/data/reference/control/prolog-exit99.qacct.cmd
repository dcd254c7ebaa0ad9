$ qacct -j 43
