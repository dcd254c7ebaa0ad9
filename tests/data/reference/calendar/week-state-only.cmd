$ qconf -Acal week-state-only.input
