$ (as root) qconf -sh
