$ (as root) qmod -cq 308
