$ qconf -Acal week-too-long.input
