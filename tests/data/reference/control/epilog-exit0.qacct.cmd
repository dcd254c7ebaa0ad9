$ qacct -j 45
