$ qconf -Aprj Aprj-p2.input
