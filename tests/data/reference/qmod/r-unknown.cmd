$ (as root) qmod -r nosuch
