$ qconf -scal cal1
