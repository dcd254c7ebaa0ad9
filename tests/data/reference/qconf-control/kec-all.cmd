$ qconf -kec all
