$ qconf -Mckpt Mckpt.input
