$ (as root) qmod -f -rj 311
