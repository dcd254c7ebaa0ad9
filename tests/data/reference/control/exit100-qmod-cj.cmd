$ qmod -cj 37
