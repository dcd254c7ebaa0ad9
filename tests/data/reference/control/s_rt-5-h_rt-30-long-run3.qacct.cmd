$ qacct -j 13
