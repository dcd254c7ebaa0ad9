$ (as root, on host localhost) qconf -sh
