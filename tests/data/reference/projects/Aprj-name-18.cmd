$ qconf -Aprj Aprj-name-18.input
