$ qmod -sj 309.1
