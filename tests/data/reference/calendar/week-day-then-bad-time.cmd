$ qconf -Acal week-day-then-bad-time.input
