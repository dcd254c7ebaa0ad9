$ qconf -Aprj Aprj-name-16.input
