$ qconf -Acal year-at.input
