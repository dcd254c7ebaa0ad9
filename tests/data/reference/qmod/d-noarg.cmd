$ (as root) qmod -d
