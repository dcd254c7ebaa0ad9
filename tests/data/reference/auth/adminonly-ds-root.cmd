$ (as root, on host localhost) qconf -ds runsc
