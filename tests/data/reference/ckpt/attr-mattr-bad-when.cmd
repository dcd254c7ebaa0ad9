$ qconf -mattr ckpt when q c1
