$ qconf -Aprj Aprj-name-41.input
