$ qconf -dprj pqx
