$ (on host localhost) qhold 302
