$ qconf -Aprj Aprj-name-11.input
