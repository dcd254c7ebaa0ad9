$ qconf -Aprj Aprj-oticket-04.input
