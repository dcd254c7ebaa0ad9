$ qconf -Aprj Aprj-name-06.input
