$ qconf -Acal year-two-dots.input
