$ qconf -Acal Acal-suspnow.input
