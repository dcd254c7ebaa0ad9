$ qconf -Aprj Aprj-name-03.input
