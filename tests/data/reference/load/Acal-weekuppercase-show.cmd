$ qconf -scal wuc
