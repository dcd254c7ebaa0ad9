$ qconf -scal yeardate
