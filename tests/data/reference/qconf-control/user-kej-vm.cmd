$ qconf -kej vm
