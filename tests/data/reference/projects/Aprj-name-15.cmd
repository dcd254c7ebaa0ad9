$ qconf -Aprj Aprj-name-15.input
