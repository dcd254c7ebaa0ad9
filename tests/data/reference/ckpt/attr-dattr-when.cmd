$ qconf -dattr ckpt when x c1
