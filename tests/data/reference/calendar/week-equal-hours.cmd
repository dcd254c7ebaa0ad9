$ qconf -Acal week-equal-hours.input
