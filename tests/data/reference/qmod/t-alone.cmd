$ (as root) qmod -t 1
