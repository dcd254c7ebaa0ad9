$ qconf -dprj p7,p6
