$ qconf -Acal week-time-leading-zero.input
