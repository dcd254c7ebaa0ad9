$ qconf -Acal Acal-weekcomma.input
