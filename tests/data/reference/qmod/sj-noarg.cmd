$ (as root) qmod -sj
