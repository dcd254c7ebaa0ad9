$ qacct -j 5
