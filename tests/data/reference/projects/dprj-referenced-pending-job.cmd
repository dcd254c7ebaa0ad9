$ qconf -dprj pj
