$ qconf -scal
