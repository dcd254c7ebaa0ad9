$ (as root) qconf -ds localhost
