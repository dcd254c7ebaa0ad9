$ (as root) qconf -ah localhost
