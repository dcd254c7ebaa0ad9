$ (as root) qconf -mattr queue load_thresholds np_load_avg=1.80 all.q
