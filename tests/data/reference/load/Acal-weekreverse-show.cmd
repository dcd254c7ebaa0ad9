$ qconf -scal wrev
