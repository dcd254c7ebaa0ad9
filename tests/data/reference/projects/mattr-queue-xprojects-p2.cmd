$ qconf -mattr queue xprojects p2 all.q
