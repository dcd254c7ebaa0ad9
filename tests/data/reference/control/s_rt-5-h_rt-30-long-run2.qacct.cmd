$ qacct -j 14
