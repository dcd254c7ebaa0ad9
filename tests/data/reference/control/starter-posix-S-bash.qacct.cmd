$ qacct -j 59
