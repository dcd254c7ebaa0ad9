$ qconf -sckpt nosuch
