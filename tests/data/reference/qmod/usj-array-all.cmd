$ qmod -usj 309
