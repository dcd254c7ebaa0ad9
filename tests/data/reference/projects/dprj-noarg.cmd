$ qconf -dprj
