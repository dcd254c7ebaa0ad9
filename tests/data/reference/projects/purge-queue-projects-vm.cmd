$ qconf -purge queue projects all.q@vm
