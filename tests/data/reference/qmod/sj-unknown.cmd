$ (as root) qmod -sj 999999
