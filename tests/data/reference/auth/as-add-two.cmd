$ (as root) qconf -as localhost,runsc
