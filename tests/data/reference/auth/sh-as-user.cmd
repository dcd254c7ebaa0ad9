$ qconf -sh
