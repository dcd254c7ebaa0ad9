$ qconf -dconf localhost
