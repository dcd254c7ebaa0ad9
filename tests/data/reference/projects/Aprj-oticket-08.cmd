$ qconf -Aprj Aprj-oticket-08.input
