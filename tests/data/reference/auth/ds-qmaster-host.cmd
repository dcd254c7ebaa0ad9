$ (as root) qconf -ds vm
