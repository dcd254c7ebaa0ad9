$ (as root, on host localhost) qconf -au sgeuser arusers
