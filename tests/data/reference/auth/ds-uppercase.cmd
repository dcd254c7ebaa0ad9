$ (as root) qconf -ds LOCALHOST
