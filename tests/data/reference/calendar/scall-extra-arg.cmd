$ qconf -scall x
