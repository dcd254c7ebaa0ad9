$ (as root) qconf -dh vm
