$ qconf -Acal Acal-timeonly.input
