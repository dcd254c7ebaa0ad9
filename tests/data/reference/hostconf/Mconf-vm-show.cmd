$ qconf -sconf vm
