$ qconf -sss
