$ qacct -j 33
