$ qconf -mattr queue projects p1,p3 all.q
