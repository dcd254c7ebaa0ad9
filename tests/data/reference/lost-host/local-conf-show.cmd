qconf -sconf vm
