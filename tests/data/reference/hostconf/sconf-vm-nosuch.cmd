$ qconf -sconf vm,nosuch
