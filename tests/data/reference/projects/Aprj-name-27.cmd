$ qconf -Aprj Aprj-name-27.input
