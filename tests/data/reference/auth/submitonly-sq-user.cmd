$ (on host localhost) qconf -sq all.q
