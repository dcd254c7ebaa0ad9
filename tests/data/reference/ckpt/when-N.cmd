$ qconf -Ackpt when-N.input
