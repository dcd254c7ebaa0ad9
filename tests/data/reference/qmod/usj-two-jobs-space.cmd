$ qmod -usj 306 310
