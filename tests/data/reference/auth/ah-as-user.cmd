$ qconf -ah x
