$ qconf -rattr queue load_thresholds np_load_avg=1.75 all.q
