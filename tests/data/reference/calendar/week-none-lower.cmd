$ qconf -Acal week-none-lower.input
