$ qconf -Acal Acal-susp.input
