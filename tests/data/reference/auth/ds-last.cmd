$ (as root) qconf -ds runsc
