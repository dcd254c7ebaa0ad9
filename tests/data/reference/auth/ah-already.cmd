$ (as root) qconf -ah vm
