$ qconf -Acal Acal-weekuppercase.input
