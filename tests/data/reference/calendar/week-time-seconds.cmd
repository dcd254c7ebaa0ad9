$ qconf -Acal week-time-seconds.input
