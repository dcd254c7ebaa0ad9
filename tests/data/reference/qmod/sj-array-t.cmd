$ qmod -sj 309 -t 3
