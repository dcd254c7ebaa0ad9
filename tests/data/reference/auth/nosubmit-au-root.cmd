$ (as root) qconf -au sgeuser arusers
