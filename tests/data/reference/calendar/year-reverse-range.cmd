$ qconf -Acal year-reverse-range.input
