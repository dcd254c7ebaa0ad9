$ qconf -Aprj Aprj-name-36.input
