$ (as root) qmod -rj 311
