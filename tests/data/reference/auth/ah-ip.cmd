$ (as root) qconf -ah 127.0.0.1
