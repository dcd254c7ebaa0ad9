$ qconf -rattr queue load_thresholds scratch_free=100M all.q
