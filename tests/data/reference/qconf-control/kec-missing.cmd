$ qconf -kec 999
