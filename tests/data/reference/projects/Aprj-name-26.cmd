$ qconf -Aprj Aprj-name-26.input
