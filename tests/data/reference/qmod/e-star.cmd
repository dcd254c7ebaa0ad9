$ (as root) qmod -e *
