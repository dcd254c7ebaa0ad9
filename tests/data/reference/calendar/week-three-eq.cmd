$ qconf -Acal week-three-eq.input
