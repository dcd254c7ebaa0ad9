$ qconf -Acal week-at.input
