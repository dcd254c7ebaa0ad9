$ qconf -Acal Acal-weekon.input
