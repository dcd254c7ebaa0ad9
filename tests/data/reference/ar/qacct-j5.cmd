root$ qacct -j 5
