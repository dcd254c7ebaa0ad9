$ qalter -ckpt c1 -c m 36
