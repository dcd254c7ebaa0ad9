$ qconf -scal susp
