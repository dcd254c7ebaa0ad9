$ (as root) qconf -du sgeuser arusers
