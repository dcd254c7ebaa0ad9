$ qconf -Acal year-two-entries.input
