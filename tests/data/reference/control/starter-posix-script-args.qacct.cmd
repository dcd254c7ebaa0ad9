$ qacct -j 63
