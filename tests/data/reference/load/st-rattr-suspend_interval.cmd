$ qconf -rattr queue suspend_interval 0:0:10 all.q
