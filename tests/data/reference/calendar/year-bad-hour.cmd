$ qconf -Acal year-bad-hour.input
