$ qconf -scal times
