$ qmod -e cal.q
