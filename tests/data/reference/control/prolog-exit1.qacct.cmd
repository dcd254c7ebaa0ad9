$ qacct -j 42
