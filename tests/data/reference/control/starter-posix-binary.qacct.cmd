$ qacct -j 58
