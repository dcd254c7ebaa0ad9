$ qconf -Acal week-two-entries.input
