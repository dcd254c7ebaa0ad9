$ qmod -sj 999999
