$ qacct -j 79
