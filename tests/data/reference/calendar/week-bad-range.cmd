$ qconf -Acal week-bad-range.input
