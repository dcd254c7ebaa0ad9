$ qconf -dprj nosuch
