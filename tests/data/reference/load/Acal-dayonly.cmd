$ qconf -Acal Acal-dayonly.input
