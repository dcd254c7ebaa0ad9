$ qconf -w e
