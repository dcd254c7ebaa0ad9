$ qconf -Aprj Aprj-oticket-10.input
