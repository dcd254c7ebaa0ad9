$ qconf -ckpt x
