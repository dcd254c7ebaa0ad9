$ qconf -Aprj Aprj-name-35.input
