$ (as root) qconf -ah localhost,vm
