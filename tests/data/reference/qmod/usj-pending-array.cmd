$ qmod -usj 314
