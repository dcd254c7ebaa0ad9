$ (as root) qmod -s 999999
