$ (as root, on host localhost) qconf -mconf global
