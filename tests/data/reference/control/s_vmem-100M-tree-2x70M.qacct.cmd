$ qacct -j 89
