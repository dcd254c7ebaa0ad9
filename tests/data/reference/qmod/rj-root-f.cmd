$ (as root) qmod -f -rj 306
