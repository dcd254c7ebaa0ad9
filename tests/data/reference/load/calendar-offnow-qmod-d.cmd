$ qmod -d cal.q
