$ qconf -scal full
