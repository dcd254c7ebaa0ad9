$ qconf -Aprj Aprj-name-32.input
