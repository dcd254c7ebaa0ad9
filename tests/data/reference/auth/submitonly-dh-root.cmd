$ (as root, on host localhost) qconf -dh vm
