$ qmod -d nosuch.q
