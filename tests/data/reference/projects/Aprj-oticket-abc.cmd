$ qconf -Aprj Aprj-oticket-abc.input
