$ qconf -dq ck.q
