$ qacct -j 7
