$ qconf -verbose
