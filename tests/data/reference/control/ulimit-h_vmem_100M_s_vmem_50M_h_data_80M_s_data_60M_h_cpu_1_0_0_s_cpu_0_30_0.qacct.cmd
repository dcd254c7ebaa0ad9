$ qacct -j 25
