$ (as root) qmod -rj 306
