$ qacct -j 88
