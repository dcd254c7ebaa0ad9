$ qacct -j 82
