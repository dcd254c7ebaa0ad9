$ (as root) qconf -ah VM
