$ qconf -rattr queue load_thresholds NONE all.q
