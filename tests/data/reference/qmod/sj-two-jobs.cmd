$ qmod -sj 306,310
