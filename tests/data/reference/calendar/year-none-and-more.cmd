$ qconf -Acal year-none-and-more.input
