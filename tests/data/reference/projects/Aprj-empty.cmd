$ qconf -Aprj Aprj-empty.input
