$ qconf -Mckpt Mckpt-missing.input
