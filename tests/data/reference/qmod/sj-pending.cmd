$ qmod -sj 307
