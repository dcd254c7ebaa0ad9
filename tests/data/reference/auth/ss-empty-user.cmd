$ qconf -ss
