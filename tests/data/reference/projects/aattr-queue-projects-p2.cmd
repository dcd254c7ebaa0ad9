$ qconf -aattr queue projects p2 all.q
