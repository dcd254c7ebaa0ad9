$ qconf -Aprj Aprj-name-40.input
