$ qacct -j 65
