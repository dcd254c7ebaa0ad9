$ qconf -Acal year-month-name.input
