$ qconf -Acal Acal-weekbadhour.input
