$ qconf -dconf global
