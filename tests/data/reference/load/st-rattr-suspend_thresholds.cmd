$ qconf -rattr queue suspend_thresholds scratch_free=100M all.q
