qconf -Mconf /tmp/lh/lc/vm
