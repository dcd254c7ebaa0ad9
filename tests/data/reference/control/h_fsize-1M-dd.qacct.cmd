$ qacct -j 32
