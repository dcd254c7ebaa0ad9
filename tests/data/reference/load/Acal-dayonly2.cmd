$ qconf -Acal Acal-dayonly2.input
