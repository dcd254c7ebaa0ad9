$ qconf -Acal Acal-offnow.input
