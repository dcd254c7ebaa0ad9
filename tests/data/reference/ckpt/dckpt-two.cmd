$ qconf -dckpt c1,c2
