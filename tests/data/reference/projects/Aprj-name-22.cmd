$ qconf -Aprj Aprj-name-22.input
