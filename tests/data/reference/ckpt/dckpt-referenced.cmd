$ qconf -dckpt c1
