$ qacct -j 26
