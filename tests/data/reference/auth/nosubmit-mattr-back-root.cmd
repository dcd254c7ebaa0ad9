$ (as root) qconf -mattr queue load_thresholds np_load_avg=1.75 all.q
