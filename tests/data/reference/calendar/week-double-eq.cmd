$ qconf -Acal week-double-eq.input
