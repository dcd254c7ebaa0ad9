$ (as root) qmod -bogus
