$ qconf -Acal week-single-hour.input
