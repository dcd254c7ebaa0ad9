$ qconf -Ackpt name-at.input
