$ (as root, on host localhost) qconf -du sgeuser arusers
