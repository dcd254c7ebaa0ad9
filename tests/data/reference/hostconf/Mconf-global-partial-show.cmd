$ qconf -sconf global
