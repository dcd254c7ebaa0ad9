$ qacct -j 62
