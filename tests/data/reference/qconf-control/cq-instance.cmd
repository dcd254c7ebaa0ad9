$ qconf -cq all.q@vm
