qconf -Aconf /tmp/lh/lc/vm
