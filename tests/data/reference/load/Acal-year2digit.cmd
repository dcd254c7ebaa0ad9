$ qconf -Acal Acal-year2digit.input
