$ qconf -Acal week-of.input
