$ qconf -Acal week-trailing-eq.input
