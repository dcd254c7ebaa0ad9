$ qacct -j 34
