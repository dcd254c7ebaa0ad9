$ qconf -sckpt
