$ qconf -scal times2
