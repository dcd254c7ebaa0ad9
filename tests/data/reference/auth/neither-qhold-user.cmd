$ (on host localhost) qhold 303
