$ qconf -Acal week-mon-dash-number.input
