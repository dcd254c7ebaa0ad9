$ qconf -sckptl
