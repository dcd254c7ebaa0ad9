$ qconf -dh vm
