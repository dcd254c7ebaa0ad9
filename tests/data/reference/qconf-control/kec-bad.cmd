$ qconf -kec abc
