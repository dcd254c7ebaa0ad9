$ qconf -scall
