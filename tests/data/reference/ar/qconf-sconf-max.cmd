root$ qconf -sconf
