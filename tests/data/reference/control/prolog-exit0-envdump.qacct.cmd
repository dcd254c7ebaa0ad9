$ qacct -j 41
