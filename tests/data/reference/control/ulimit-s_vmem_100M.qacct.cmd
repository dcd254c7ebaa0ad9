$ qacct -j 16
