$ qconf -Acal week-sun-sat.input
