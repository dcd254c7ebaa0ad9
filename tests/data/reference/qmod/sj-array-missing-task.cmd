$ qmod -sj 309.7
