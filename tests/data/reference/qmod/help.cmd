$ (as root) qmod -help
