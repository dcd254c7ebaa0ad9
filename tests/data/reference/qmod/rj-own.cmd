$ qmod -rj 306
