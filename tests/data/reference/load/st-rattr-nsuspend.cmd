$ qconf -rattr queue nsuspend 1 all.q
