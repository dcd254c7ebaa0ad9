$ qacct -j 11
