$ qconf -Acal Acal-hourreverse.input
