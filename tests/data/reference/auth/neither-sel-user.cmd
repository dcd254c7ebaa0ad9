$ (on host localhost) qconf -sel
