$ qmod -usj 307
