$ qconf -Acal year-overflow.input
