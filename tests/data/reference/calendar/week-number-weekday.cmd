$ qconf -Acal week-number-weekday.input
