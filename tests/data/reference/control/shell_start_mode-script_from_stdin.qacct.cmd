$ qacct -j 70
