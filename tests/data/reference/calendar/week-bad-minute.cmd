$ qconf -Acal week-bad-minute.input
