$ (as root, on host localhost) qconf -as localhost
