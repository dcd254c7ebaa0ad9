$ qacct -j 31
