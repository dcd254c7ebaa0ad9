$ qmod -sj 311
