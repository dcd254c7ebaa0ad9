$ (as root) qmod -rj 307
