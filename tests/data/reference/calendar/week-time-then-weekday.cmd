$ qconf -Acal week-time-then-weekday.input
