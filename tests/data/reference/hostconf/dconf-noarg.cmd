$ qconf -dconf
