$ qacct -j 81
