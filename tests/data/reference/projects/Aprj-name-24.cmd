$ qconf -Aprj Aprj-name-24.input
