$ (as root, on host localhost) qconf -am sgeuser
