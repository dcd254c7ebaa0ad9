$ qmod -sj 314.1-2
