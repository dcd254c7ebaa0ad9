qconf -Mconf /tmp/lh/c2/global
