$ qacct -j 124
