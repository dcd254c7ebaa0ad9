$ qconf -Aprj Aprj-name-33.input
