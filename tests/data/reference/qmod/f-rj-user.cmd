$ qmod -f -rj 306
