$ qconf -scal night
