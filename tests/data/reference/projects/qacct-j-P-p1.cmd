$ qacct -j 121
