$ qconf -scal xmas
