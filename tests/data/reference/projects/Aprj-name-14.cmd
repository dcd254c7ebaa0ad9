$ qconf -Aprj Aprj-name-14.input
