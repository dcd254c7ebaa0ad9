$ qconf -mckpt c1
