$ qconf -Acal year-month-full.input
