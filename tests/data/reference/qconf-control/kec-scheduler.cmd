$ qconf -kec 1
