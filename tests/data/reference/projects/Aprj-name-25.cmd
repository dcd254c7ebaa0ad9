$ qconf -Aprj Aprj-name-25.input
