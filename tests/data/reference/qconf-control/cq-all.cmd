$ qconf -cq all.q
