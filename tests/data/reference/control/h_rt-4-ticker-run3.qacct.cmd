$ qacct -j 84
