$ qconf -Acal week-mon-mon.input
