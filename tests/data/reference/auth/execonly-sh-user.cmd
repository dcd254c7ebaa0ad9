$ (on host localhost) qconf -sh
