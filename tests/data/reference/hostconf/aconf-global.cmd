$ qconf -aconf global
