$ qconf -dconf vm
