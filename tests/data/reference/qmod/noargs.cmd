$ (as root) qmod
