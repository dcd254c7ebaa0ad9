$ qconf -scal nosuch
