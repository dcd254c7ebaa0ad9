$ qconf -Acal Acal-yeartime.input
