$ qmod -sj 314 -t x
