qconf -mattr queue h_rt 0:8:0 all.q
