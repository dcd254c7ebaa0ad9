$ qconf -mattr ckpt signal usr1 c1
