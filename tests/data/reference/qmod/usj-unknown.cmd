$ (as root) qmod -usj 999999
