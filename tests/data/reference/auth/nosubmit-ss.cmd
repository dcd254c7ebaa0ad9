$ (as root) qconf -ss
