$ qconf -Aprj Aprj-reordered.input
