$ qconf -sckpt c1
