$ qacct -j 86
