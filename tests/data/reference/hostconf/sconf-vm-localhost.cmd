$ qconf -sconf vm,localhost
