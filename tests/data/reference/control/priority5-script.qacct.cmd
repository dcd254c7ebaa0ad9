$ qacct -j 75
