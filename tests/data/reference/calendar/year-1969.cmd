$ qconf -Acal year-1969.input
