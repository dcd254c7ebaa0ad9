$ qmod -sj 309
