$ (as root) qmod -c 999999
