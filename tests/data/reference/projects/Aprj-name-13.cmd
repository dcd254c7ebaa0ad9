$ qconf -Aprj Aprj-name-13.input
