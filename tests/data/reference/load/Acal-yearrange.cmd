$ qconf -Acal Acal-yearrange.input
