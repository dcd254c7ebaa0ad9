$ (on host localhost) qconf -ah localhost
