qmod -help
