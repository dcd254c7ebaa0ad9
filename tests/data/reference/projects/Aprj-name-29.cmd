$ qconf -Aprj Aprj-name-29.input
