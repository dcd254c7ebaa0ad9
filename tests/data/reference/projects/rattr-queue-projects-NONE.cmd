$ qconf -rattr queue projects NONE all.q
