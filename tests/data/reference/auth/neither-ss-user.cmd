$ (on host localhost) qconf -ss
