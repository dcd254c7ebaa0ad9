$ qconf -dprj pr
