$ qacct -j 47
