qconf -Mconf /tmp/lh/c/global
