$ qconf -Aprj Aprj-name-08.input
