$ qconf -Aprj Aprj-name-07.input
