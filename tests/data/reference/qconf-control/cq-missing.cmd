$ qconf -cq nosuch.q
