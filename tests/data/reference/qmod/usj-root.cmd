$ (as root) qmod -usj 306
