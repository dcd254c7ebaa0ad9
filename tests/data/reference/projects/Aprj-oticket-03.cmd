$ qconf -Aprj Aprj-oticket-03.input
