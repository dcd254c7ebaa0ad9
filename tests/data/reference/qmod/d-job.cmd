$ (as root) qmod -d 308
