$ qconf -Acal year-bad-second.input
