$ qmod -sj 308
