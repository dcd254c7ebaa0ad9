$ qconf -mattr ckpt interface foo c1
