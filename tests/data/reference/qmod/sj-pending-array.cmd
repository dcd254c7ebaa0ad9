$ qmod -sj 314
