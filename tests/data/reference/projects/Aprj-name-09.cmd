$ qconf -Aprj Aprj-name-09.input
