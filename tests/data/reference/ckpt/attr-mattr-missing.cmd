$ qconf -mattr ckpt when x nosuch
