$ qacct -j 9
