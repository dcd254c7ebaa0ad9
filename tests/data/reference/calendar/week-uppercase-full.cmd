$ qconf -Acal week-uppercase-full.input
