$ qconf -Acal year-bad-minute.input
