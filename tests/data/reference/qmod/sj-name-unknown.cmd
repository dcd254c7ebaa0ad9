$ qmod -sj nosuchname
