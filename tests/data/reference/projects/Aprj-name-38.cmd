$ qconf -Aprj Aprj-name-38.input
