$ qconf -aconf
