$ qmod -cj 308
