$ qmod -help
