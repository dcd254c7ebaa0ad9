$ qconf -Ackpt when-x.input
