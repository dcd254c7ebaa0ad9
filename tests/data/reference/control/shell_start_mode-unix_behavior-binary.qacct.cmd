$ qacct -j 69
