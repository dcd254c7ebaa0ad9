$ (as root) qmod -rj 999999
