qconf -dconf vm
