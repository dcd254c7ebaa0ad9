$ qmod -rj 308
