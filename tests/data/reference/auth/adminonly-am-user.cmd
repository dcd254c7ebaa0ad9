$ (on host localhost) qconf -am sgeuser
