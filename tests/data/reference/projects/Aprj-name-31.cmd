$ qconf -Aprj Aprj-name-31.input
