$ qacct -j 17
