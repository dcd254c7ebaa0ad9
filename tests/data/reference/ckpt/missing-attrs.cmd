$ qconf -Ackpt missing-attrs.input
