$ qconf -Aprj Aprj-oticket-neg.input
