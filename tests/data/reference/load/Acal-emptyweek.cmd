$ qconf -Acal Acal-emptyweek.input
