$ qconf -Acal week-full-names.input
