$ (as root) qconf -as vm
