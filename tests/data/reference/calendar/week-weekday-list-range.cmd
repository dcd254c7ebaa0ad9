$ qconf -Acal week-weekday-list-range.input
