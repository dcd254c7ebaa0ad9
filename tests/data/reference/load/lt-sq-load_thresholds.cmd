$ qconf -sq all.q | grep -E "^(load|suspend)_thresholds"
