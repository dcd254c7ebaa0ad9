$ qmod -usj 306
