$ qconf -scal 1cal
