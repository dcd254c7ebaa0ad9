$ qacct -j 38
