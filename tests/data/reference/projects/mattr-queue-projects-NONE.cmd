$ qconf -mattr queue projects NONE all.q
