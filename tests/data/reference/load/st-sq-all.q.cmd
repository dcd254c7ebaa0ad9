$ qconf -sq all.q
