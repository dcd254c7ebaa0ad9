$ qconf -Aprj Aprj-oticket-09.input
