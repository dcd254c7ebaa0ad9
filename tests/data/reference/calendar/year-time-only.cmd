$ qconf -Acal year-time-only.input
