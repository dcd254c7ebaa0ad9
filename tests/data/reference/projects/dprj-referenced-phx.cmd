$ qconf -dprj phx
