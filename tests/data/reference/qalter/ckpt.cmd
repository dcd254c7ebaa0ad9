$ qalter -ckpt c1 36
