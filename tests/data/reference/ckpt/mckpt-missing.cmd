$ qconf -mckpt nosuch
