$ qconf -scal wcm
