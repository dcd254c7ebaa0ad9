$ qconf -rattr queue nsuspend 2 all.q
