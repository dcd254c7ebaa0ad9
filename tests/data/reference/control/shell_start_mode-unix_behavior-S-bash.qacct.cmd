$ qacct -j 68
