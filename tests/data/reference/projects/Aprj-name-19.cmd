$ qconf -Aprj Aprj-name-19.input
