$ qconf -sconf vm,global
