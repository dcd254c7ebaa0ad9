$ qconf -Acal
