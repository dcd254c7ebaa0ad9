$ qconf -Aprj Aprj-name-05.input
