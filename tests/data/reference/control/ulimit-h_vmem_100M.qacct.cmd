$ qacct -j 15
