$ qconf -R y
