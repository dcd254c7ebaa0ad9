$ qconf -mattr ckpt when xm c1
