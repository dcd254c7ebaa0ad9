$ qconf -Aprj Aprj-values.input
