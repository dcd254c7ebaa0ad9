$ qconf -mattr ckpt nosuch 1 c1
