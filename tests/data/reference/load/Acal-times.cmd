$ qconf -Acal Acal-times.input
