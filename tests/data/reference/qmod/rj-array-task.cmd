$ (as root) qmod -rj 309.1
