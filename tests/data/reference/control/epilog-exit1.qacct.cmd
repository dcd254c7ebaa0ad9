$ qacct -j 46
