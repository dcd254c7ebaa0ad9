$ qmod -sj 314.2
