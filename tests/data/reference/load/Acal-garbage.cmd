$ qconf -Acal Acal-garbage.input
