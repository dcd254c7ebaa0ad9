$ (as root) qmod -c nosuch
