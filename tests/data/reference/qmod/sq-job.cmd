$ (as root) qmod -sq 306
