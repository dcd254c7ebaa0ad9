$ qconf -dprj p8
