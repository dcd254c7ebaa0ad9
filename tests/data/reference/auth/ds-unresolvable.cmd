$ (as root) qconf -ds nosuch
