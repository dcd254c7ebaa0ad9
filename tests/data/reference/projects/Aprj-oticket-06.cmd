$ qconf -Aprj Aprj-oticket-06.input
