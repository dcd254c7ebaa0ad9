$ (as root) qconf -dh nosuch
