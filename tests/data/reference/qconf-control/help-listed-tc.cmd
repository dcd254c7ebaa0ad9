$ qconf -tc 2
