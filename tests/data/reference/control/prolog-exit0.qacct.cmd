$ qacct -j 40
