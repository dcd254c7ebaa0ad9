$ qalter -ckpt c1 37
