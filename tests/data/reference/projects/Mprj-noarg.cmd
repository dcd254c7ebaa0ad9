$ qconf -Mprj
