$ qconf -Aprj Aprj-name-39.input
