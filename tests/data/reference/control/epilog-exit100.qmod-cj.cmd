$ qmod -cj 48
