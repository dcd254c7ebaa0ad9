$ qconf -Aprj Aprj-name-only.input
