$ qmod -cj 307
