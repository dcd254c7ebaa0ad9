$ qconf -Ackpt when-n.input
