$ qconf -Aprj Aprj-name-01.input
