$ qconf -scal hrev
