$ qconf -Aprj Aprj-missing-oticket.input
