$ qconf -dckpt nosuch
