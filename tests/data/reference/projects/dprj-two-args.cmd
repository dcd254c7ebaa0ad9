$ qconf -dprj p3 p2
