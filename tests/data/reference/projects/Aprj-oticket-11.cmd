$ qconf -Aprj Aprj-oticket-11.input
