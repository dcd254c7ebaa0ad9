$ qconf -Aprj Aprj-unknown-attr.input
