$ (as root) qmod -rq nosuch
