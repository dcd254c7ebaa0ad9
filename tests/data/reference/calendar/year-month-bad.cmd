$ qconf -Acal year-month-bad.input
