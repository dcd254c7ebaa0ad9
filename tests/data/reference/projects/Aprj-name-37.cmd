$ qconf -Aprj Aprj-name-37.input
