$ qconf -Acal week-two-letters.input
