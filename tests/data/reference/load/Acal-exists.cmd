$ qconf -Acal Acal-exists.input
