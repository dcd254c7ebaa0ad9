$ qacct -j 28
