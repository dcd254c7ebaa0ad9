$ qconf -Ackpt name-slash.input
