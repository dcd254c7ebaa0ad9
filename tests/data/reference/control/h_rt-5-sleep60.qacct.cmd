$ qacct -j 3
