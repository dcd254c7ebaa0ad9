$ qconf -se global
