$ qacct -j 50
