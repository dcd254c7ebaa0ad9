$ qconf -mattr queue calendar weekend cal.q
