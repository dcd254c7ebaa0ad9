$ qconf -Acal year-range-list-times.input
