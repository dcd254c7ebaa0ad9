$ qacct -j 29
