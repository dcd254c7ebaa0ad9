$ qmod -rj 311
