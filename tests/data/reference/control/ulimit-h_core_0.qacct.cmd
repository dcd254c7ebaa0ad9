$ qacct -j 22
