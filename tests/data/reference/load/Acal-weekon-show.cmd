$ qconf -scal won
