$ qconf -Acal week-multi-space.input
