$ qacct -j 27
