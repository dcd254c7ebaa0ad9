$ qconf -Aprj Aprj-name-30.input
