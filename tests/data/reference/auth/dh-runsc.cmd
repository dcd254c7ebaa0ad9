$ (as root) qconf -dh runsc
