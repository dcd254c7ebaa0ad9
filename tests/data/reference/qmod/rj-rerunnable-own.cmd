$ qmod -rj 310
