$ qconf -Acal year-month-two-letters.input
