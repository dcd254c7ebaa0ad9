$ qmod -sj 314 -t 1-2
