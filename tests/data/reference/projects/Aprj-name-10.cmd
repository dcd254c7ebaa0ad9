$ qconf -Aprj Aprj-name-10.input
