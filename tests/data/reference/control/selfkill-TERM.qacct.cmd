$ qacct -j 10
