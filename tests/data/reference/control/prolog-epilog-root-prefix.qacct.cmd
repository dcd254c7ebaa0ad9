$ qacct -j 49
