$ (as root) qmod -f
