$ qconf -Aprj Aprj-oticket-05.input
