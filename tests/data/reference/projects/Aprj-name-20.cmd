$ qconf -Aprj Aprj-name-20.input
