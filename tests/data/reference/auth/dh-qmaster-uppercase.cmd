$ (as root) qconf -dh VM
