$ qconf -ks
