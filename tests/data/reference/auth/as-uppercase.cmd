$ (as root) qconf -as LOCALHOST
