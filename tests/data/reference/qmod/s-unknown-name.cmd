$ (as root) qmod -s nosuch
