$ qconf -Aprj Aprj-name-28.input
