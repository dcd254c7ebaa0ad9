$ (as root, on host localhost) qconf -ds localhost
