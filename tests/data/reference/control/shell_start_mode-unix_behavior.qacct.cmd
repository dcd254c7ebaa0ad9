$ qacct -j 67
