$ qconf -Aprj Aprj-name-34.input
