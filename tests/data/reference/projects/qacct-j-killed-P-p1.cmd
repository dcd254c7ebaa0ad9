$ qacct -j 120
