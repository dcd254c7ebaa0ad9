$ qalter -ckpt nosuch 36
