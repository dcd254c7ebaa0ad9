$ (on host localhost) qhost
