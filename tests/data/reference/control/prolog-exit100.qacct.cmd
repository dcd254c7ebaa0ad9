$ qacct -j 44
