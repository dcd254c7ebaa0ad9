$ (on host localhost) qalter -N x 303
