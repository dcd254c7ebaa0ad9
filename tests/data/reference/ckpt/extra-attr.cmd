$ qconf -Ackpt extra-attr.input
