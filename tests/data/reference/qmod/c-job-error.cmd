$ (as root) qmod -c 308
