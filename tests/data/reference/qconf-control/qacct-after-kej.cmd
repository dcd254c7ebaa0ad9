$ qacct -j 61
