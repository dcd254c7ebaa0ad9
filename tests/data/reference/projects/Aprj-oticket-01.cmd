$ qconf -Aprj Aprj-oticket-01.input
