$ qconf -Acal week-hour-24-30.input
