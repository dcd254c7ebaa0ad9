$ (as root) qmod -d nosuch.q
