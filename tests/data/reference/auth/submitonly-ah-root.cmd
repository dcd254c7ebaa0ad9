$ (as root, on host localhost) qconf -ah localhost
