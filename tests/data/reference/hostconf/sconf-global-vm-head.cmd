$ qconf -sconf global,vm
