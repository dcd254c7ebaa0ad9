$ qconf -Acal year-none-lower.input
