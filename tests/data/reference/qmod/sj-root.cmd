$ (as root) qmod -sj 306
