$ qconf -Aprj Aprj-missing-name.input
