$ qmod -cj 44
