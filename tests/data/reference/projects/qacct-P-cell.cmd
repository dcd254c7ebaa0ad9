$ qacct -P
