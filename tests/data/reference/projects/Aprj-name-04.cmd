$ qconf -Aprj Aprj-name-04.input
