$ qacct -j 78
