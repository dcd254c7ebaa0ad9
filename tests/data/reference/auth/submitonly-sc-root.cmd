$ (as root, on host localhost) qconf -sc
