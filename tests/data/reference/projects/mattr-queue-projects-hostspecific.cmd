$ qconf -mattr queue projects p1 all.q@vm
