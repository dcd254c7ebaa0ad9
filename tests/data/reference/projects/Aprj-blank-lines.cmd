$ qconf -Aprj Aprj-blank-lines.input
