$ qconf -rattr ckpt when m c1
