$ qconf -Acal week-on-uppercase.input
