$ qacct -j 57
