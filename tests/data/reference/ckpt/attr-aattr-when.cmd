$ qconf -aattr ckpt when x c1
