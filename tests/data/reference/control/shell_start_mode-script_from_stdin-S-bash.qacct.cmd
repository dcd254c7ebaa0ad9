$ qacct -j 71
