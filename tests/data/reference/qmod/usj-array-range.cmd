$ qmod -usj 309.1-3
