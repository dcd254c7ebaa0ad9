$ qconf -ar 1
