$ qconf -Ackpt when-empty.input
