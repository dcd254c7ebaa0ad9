$ qacct -j 36
