$ (as root) qconf -ah runsc
