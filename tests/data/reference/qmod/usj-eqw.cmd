$ qmod -usj 308
