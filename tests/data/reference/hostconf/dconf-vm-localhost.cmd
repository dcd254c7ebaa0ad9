$ qconf -dconf vm,localhost
