$ qconf -Acal week-time-list.input
