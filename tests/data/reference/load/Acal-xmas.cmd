$ qconf -Acal Acal-xmas.input
