$ qconf -Acal Acal-weekreverse.input
