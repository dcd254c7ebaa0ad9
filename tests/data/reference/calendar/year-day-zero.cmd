$ qconf -Acal year-day-zero.input
