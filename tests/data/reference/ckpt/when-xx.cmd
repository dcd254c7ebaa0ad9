$ qconf -Ackpt when-xx.input
