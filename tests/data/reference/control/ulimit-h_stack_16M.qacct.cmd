$ qacct -j 21
