$ qconf -Aconf
