$ qacct -j 87
