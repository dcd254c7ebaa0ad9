$ qmod -f -usj 306
