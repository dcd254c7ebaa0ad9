$ qconf -srqsl
