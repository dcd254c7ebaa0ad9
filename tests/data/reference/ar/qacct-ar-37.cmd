root$ qacct -ar 37
