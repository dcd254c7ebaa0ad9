$ qacct -j 19
