$ qacct -j 6
