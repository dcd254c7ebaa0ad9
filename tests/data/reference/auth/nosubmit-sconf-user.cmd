$ qconf -sconf
