$ qconf -Aprj Aprj-oticket-07.input
