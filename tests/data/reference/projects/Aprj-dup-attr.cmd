$ qconf -Aprj Aprj-dup-attr.input
