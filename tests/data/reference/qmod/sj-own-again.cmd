$ qmod -sj 306
