$ qmod -cj 999999
