$ qconf -Acal week-trailing-space.input
