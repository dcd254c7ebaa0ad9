$ qconf -Acal Acal-offtoday.input
