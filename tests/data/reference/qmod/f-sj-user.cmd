$ qmod -f -sj 306
