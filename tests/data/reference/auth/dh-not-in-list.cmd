$ (as root) qconf -dh localhost
