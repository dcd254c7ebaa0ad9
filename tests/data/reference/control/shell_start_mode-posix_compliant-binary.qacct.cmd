$ qacct -j 66
