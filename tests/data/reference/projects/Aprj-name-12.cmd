$ qconf -Aprj Aprj-name-12.input
