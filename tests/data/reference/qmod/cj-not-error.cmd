$ qmod -cj 306
