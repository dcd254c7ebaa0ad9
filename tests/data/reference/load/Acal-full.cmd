$ qconf -Acal Acal-full.input
