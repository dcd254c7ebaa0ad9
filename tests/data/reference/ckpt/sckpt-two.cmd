$ qconf -sckpt c1,c1
