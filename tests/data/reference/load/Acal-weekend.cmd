$ qconf -Acal Acal-weekend.input
