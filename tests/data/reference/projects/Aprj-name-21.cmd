$ qconf -Aprj Aprj-name-21.input
