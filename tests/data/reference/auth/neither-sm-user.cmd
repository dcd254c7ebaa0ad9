$ (on host localhost) qconf -sm
