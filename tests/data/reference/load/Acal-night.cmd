$ qconf -Acal Acal-night.input
