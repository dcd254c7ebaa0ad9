$ qconf -Acal week-comma-entries.input
