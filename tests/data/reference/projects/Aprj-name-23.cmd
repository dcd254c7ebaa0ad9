$ qconf -Aprj Aprj-name-23.input
