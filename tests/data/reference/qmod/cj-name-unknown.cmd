$ (as root) qmod -cj nosuch
