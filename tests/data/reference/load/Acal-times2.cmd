$ qconf -Acal Acal-times2.input
