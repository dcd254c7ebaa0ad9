$ qmod -sj 314.x
