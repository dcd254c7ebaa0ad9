$ (as root) qmod -d all.q -help
