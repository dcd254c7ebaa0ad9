$ qacct -j 60
