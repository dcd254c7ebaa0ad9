root$ qacct -ar
