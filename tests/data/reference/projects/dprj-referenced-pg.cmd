$ qconf -dprj pg
