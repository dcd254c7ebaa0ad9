$ qmod -c all.q
